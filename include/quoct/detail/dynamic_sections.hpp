// quoct: dynamic_orthtree's saved form: its sections, and the checks that make an index read
// back from a file safe to query and to update. Included by quoct/dynamic.hpp; reached
// through quoct/file.hpp (detail::file_codec), which gives the Writer and the Reader.
//
// Sections, under the index's prefix: "meta" (tail limit, leaf size, maximum depth, nearest
// index, live points, levels), "rebuild" (the rebuild fraction), "where" and "slot" (each
// id's part and place: its input position in the part's tree, or its place in the tail),
// "tail" and "tail_points", then each part, "snap." and "level<j>.": "meta" (dead entries,
// stored entries), "ids" (the part's ids, increasing; empty when they are its positions),
// "dead" (a bitmap) and the part's orthtree under "tree.".
#ifndef QUOCT_DETAIL_DYNAMIC_SECTIONS_HPP
#define QUOCT_DETAIL_DYNAMIC_SECTIONS_HPP

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace quoct {
namespace detail {

/// The values of a dynamic index's "meta" section, and of each part's (see the top).
constexpr std::size_t dynamic_meta_values = 6;
constexpr std::size_t dynamic_part_meta_values = 2;

/// The values as a "meta" section, exactly `Count` of them.
template <std::size_t Count, class... V>
std::vector<std::uint64_t> meta_values(V... v) {
    static_assert(sizeof...(V) == Count, "quoct: a meta section's values and its count disagree");
    return {static_cast<std::uint64_t>(v)...};
}

}  // namespace detail

template <class T, std::size_t D, class Id>
template <class Writer>
void dynamic_orthtree<T, D, Id>::write_sections(Writer& w, const std::string& prefix) const {
    const build_options& o = options_.tree;
    w.add_copy(prefix + "meta", detail::meta_values<detail::dynamic_meta_values>(options_.tail_limit, o.leaf_size, o.max_depth,
                                                                                o.nearest_index ? 1u : 0u, live_, levels_.size()));
    w.add_copy(prefix + "rebuild", std::vector<double>{options_.rebuild_fraction});
    // Every id handed out has its entry in the file (the dropped ones erased), and a part's
    // entry is its input position (the dead marks' and the ids' index), not where it is stored.
    std::vector<unsigned char> where(base_, erased);
    where.insert(where.end(), where_.begin(), where_.end());
    std::vector<Id> slot(base_, Id{0});
    slot.insert(slot.end(), slot_.begin(), slot_.end());
    each_part([&](const part& pp) {
        const Id* input = pp.tree.stored_ids();
        for (std::size_t at = 0; at < pp.stored; ++at)
            if (!pp.is_dead(input[at])) slot[pp.id_of(input[at])] = input[at];
        return true;
    });
    w.add_copy(prefix + "where", where);
    w.add_copy(prefix + "slot", slot);
    w.add(prefix + "tail", tail_.data(), tail_.size());
    w.add(prefix + "tail_points", tail_points_.data(), tail_points_.size());
    write_part(snap_, w, prefix + "snap.");
    for (std::size_t j = 0; j < levels_.size(); ++j) write_part(levels_[j], w, prefix + "level" + std::to_string(j) + ".");
}

template <class T, std::size_t D, class Id>
template <class Reader>
dynamic_orthtree<T, D, Id> dynamic_orthtree<T, D, Id>::read_sections(const Reader& r, const std::string& prefix) {
    const detail::section<std::uint64_t> m = r.template get<std::uint64_t>(prefix + "meta", detail::dynamic_meta_values);
    dynamic_orthtree x;
    x.options_.tail_limit = Reader::to_size(m[0]);
    x.options_.tree.leaf_size = Reader::to_size(m[1]);
    x.options_.tree.max_depth = Reader::to_size(m[2]);
    x.options_.tree.nearest_index = m[3] != 0;
    x.options_.rebuild_fraction = r.template get<double>(prefix + "rebuild", 1)[0];
    try {
        x.check_options();
    } catch (const std::exception& e) {
        r.fail(std::string("damaged: ") + e.what());
    }
    x.live_ = Reader::to_size(m[4]);
    const std::size_t levels = Reader::to_size(m[5]);
    if (levels > 64) r.fail("damaged: " + std::to_string(m[5]) + " levels");
    x.where_ = r.template copy<unsigned char>(prefix + "where");
    const std::size_t n = x.where_.size();
    x.slot_ = r.template copy<Id>(prefix + "slot", n);
    x.tail_ = r.template copy<Id>(prefix + "tail");
    x.tail_points_ = r.template copy<point_type>(prefix + "tail_points", x.tail_.size());
    x.snap_ = read_part(r, prefix + "snap.", n);
    for (std::size_t j = 0; j < levels; ++j) x.levels_.push_back(read_part(r, prefix + "level" + std::to_string(j) + ".", n));
    x.check_places(r);
    // Each entry of a part to where its tree stores it.
    x.place_part(x.snap_, at_snapshot);
    for (std::size_t j = 0; j < levels; ++j) x.place_part(x.levels_[j], static_cast<unsigned char>(in_level + j));
    x.drop_erased_prefix();
    return x;
}

template <class T, std::size_t D, class Id>
template <class Writer>
void dynamic_orthtree<T, D, Id>::write_part(const part& p, Writer& w, const std::string& prefix) {
    w.add_copy(prefix + "meta", detail::meta_values<detail::dynamic_part_meta_values>(p.dead_count, p.stored));
    // One id per entry, or none for the identity: the ids in place where they are kept so,
    // else (runs) written out.
    if (p.ids.identity() || !p.ids.each_ids().empty()) w.add(prefix + "ids", p.ids.each_ids().data(), p.ids.each_ids().size());
    else w.add_copy(prefix + "ids", p.ids.expanded(p.stored));
    w.add(prefix + "dead", p.dead.words().data(), p.dead.words().size());
    detail::file_codec<tree_type>::write(p.tree, w, prefix + "tree.");
}

// A part, checked: its counts agree with its tree, its ids increase (as the builder gives
// them) below id_bound, and its dead marks number its dead count.
template <class T, std::size_t D, class Id>
template <class Reader>
typename dynamic_orthtree<T, D, Id>::part dynamic_orthtree<T, D, Id>::read_part(const Reader& r, const std::string& prefix,
                                                                               std::size_t id_bound) {
    part p;
    const detail::section<std::uint64_t> m = r.template get<std::uint64_t>(prefix + "meta", detail::dynamic_part_meta_values);
    p.tree = detail::file_codec<tree_type>::read(r, prefix + "tree.");
    p.dead_count = Reader::to_size(m[0]);
    p.stored = Reader::to_size(m[1]);
    if (p.stored != p.tree.size() || p.dead_count > p.stored) r.fail("damaged: " + prefix + "meta disagrees with its tree");
    const detail::section<Id> ids = r.template get<Id>(prefix + "ids");
    if (ids.empty() ? p.stored > id_bound : ids.size() != p.stored)
        r.fail("damaged: " + prefix + "ids does not fit the part");
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] >= id_bound || (i != 0 && ids[i] <= ids[i - 1]))
            r.fail("damaged: " + prefix + "ids are not increasing known ids");
    p.ids = detail::part_ids<Id>::of(std::vector<Id>(ids.begin(), ids.end()));
    std::vector<std::uint64_t> dead = r.template copy<std::uint64_t>(prefix + "dead", (p.stored + 63) / 64);
    std::size_t marked = 0;
    for (const std::uint64_t w : dead) marked += static_cast<std::size_t>(std::bitset<64>(w).count());
    if (marked != p.dead_count) r.fail("damaged: " + prefix + "dead marks disagree with its count");
    p.dead.assign_words(std::move(dead));
    return p;
}

// Every live id's place holds it and nothing else holds a live id: its part's entry is not
// dead and maps back to it, or its tail entry is it; every entry not dead (and every tail
// entry) is the place of its id. So each live point is reported once, as built. And no part
// or tail point is NaN or infinite: a rebuild or a fold reads them back into a tree, which
// would refuse them (no builder makes one).
template <class T, std::size_t D, class Id>
template <class Reader>
void dynamic_orthtree<T, D, Id>::check_places(const Reader& r) const {
    const auto holds = [&](const part& p, unsigned tag) {
        for (std::size_t pos = 0; pos < p.stored; ++pos) {
            if (p.is_dead(static_cast<Id>(pos))) continue;
            const std::size_t id = p.id_of(static_cast<Id>(pos));
            if (where_[id] != tag || slot_[id] != pos) r.fail("damaged: an entry of a part is not its id's place");
        }
    };
    holds(snap_, at_snapshot);
    for (std::size_t j = 0; j < levels_.size(); ++j) holds(levels_[j], static_cast<unsigned>(in_level + j));
    const auto finite = [&](const part& p) {
        for (std::size_t i = 0; i < p.tree.size(); ++i)
            if (!is_finite(p.tree.stored_point(i))) r.fail("damaged: a point of a part has a NaN or infinite coordinate");
    };
    finite(snap_);
    for (const part& level : levels_) finite(level);
    std::size_t live = 0;
    for (std::size_t id = 0; id < where_.size(); ++id) {
        const unsigned w = where_[id];
        const std::size_t s = slot_[id];
        const auto in = [&](const part& p) {
            return s < p.stored && !p.is_dead(static_cast<Id>(s)) && p.id_of(static_cast<Id>(s)) == id;
        };
        const bool ok = w == erased || (w == at_snapshot && in(snap_)) ||
                        (w == in_tail && s < tail_.size() && tail_[s] == id) ||
                        (w >= in_level && w - in_level < levels_.size() && in(levels_[w - in_level]));
        if (!ok) r.fail("damaged: point " + std::to_string(id) + " has no place in the index");
        live += w != erased;
    }
    if (live != live_) r.fail("damaged: the live count disagrees with the points");
    for (std::size_t i = 0; i < tail_.size(); ++i) {
        const Id id = tail_[i];
        if (id >= where_.size() || where_[id] != in_tail || slot_[id] != i) r.fail("damaged: the tail disagrees with its ids");
        if (!is_finite(tail_points_[i])) r.fail("damaged: point " + std::to_string(id) + " has a NaN or infinite coordinate");
    }
}

}  // namespace quoct

#endif  // QUOCT_DETAIL_DYNAMIC_SECTIONS_HPP
