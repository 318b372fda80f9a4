// Collision detection with quoct: circles of very different sizes and boxes move in a 2D
// arena and bounce off its walls and off each other. Every step the indexes are updated
// in place (object_index::move), the broad phase (quoct) lists the pairs whose shapes
// meet, and the narrow phase works out each contact's normal and pushes the pair apart.
//
// Every 25 steps the broad-phase pair counts are compared with brute force over all
// pairs; the program returns 1 if they ever differ.
//
//   collisions [circles=1500] [boxes=300] [steps=200]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#include <quoct/objects.hpp>

namespace {

using T = double;
using vec = quoct::point<T, 2>;
using circle = quoct::ball<T, 2>;
using rect = quoct::box<T, 2>;

constexpr T arena = 100;
constexpr T dt = 0.05;

// Reflects a velocity component when the shape pokes out of the arena on that axis.
void bounce_walls(T lo, T hi, T& v) {
    if ((lo < 0 && v < 0) || (hi > arena && v > 0)) v = -v;
}

// The narrow phase: the unit normal from b to a for two circles (exact contact test done
// by the broad phase already), then an elastic exchange along it for equal masses.
void resolve(const circle& a, const circle& b, vec& va, vec& vb) {
    T n[2] = {a.center[0] - b.center[0], a.center[1] - b.center[1]};
    const T len = std::sqrt(n[0] * n[0] + n[1] * n[1]);
    if (len == 0) return;
    n[0] /= len;
    n[1] /= len;
    const T approach = (va[0] - vb[0]) * n[0] + (va[1] - vb[1]) * n[1];
    if (approach >= 0) return;  // already separating
    for (std::size_t k = 0; k < 2; ++k) {
        va[k] -= approach * n[k];
        vb[k] += approach * n[k];
    }
}

// A circle against a box: the normal from the box's closest point to the circle centre;
// the circle reflects its velocity along it (boxes are heavy and keep theirs).
void resolve(const circle& c, const rect& b, vec& vc) {
    const T px = std::clamp(c.center[0], b.lo[0], b.hi[0]), py = std::clamp(c.center[1], b.lo[1], b.hi[1]);
    T n[2] = {c.center[0] - px, c.center[1] - py};
    const T len = std::sqrt(n[0] * n[0] + n[1] * n[1]);
    if (len == 0) return;  // centre inside the box: leave it be
    n[0] /= len;
    n[1] /= len;
    const T along = vc[0] * n[0] + vc[1] * n[1];
    if (along < 0)
        for (std::size_t k = 0; k < 2; ++k) vc[k] -= 2 * along * n[k];
}

struct counts {
    std::size_t circle_circle = 0, circle_box = 0, box_box = 0;
    bool operator==(const counts& o) const {
        return circle_circle == o.circle_circle && circle_box == o.circle_box && box_box == o.box_box;
    }
};

}  // namespace

int main(int argc, char** argv) {
    const std::size_t n_circles = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1500;
    const std::size_t n_boxes = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 300;
    const int steps = argc > 3 ? std::atoi(argv[3]) : 200;

    std::mt19937_64 rng(3);
    std::uniform_real_distribution<T> where(10, arena - 10), speed(-2, 2), size(-1, 0.5);
    std::vector<circle> circles(n_circles);
    std::vector<rect> boxes(n_boxes);
    std::vector<vec> circle_vel(n_circles), box_vel(n_boxes);
    for (std::size_t i = 0; i < n_circles; ++i) {
        const T r = i % 100 == 0 ? T(6) : std::pow(T(10), size(rng)) / 2;  // a few big ones
        circles[i] = {{{where(rng), where(rng)}}, r};
        circle_vel[i] = {{speed(rng), speed(rng)}};
    }
    for (std::size_t i = 0; i < n_boxes; ++i) {
        const vec c{{where(rng), where(rng)}};
        const T w = std::pow(T(10), size(rng)), h = std::pow(T(10), size(rng));
        boxes[i] = {{{c[0] - w, c[1] - h}}, {{c[0] + w, c[1] + h}}};
        box_vel[i] = {{speed(rng) / 4, speed(rng) / 4}};
    }
    quoct::ball_index<T, 2> circle_index(circles);
    quoct::box_index<T, 2> box_index(boxes);
    std::printf("%zu circles (%zu size classes) and %zu boxes (%zu size classes), %d steps\n", n_circles,
                circle_index.class_count(), n_boxes, box_index.class_count(), steps);
    std::printf("%6s %14s %12s %10s\n", "step", "circle-circle", "circle-box", "box-box");

    int failures = 0;
    for (int t = 0; t <= steps; ++t) {
        // Broad phase with quoct: the pairs whose shapes meet (touching counts).
        counts found;
        circle_index.for_each_colliding_pair([&](std::uint32_t a, std::uint32_t b) {
            resolve(circle_index.shape(a), circle_index.shape(b), circle_vel[a], circle_vel[b]);
            ++found.circle_circle;
        });
        quoct::for_each_colliding_pair(circle_index, box_index, [&](std::uint32_t c, std::uint32_t b) {
            resolve(circle_index.shape(c), box_index.shape(b), circle_vel[c]);
            ++found.circle_box;
        });
        box_index.for_each_colliding_pair([&](std::uint32_t a, std::uint32_t b) {
            std::swap(box_vel[a], box_vel[b]);  // equal boxes: exchange velocities
            ++found.box_box;
        });

        if (t % 25 == 0) {
            counts brute;
            for (std::size_t i = 0; i < n_circles; ++i) {
                for (std::size_t j = i + 1; j < n_circles; ++j)
                    brute.circle_circle += quoct::intersects(circles[i], circles[j]) ? 1 : 0;
                for (std::size_t j = 0; j < n_boxes; ++j) brute.circle_box += quoct::intersects(circles[i], boxes[j]) ? 1 : 0;
            }
            for (std::size_t i = 0; i < n_boxes; ++i)
                for (std::size_t j = i + 1; j < n_boxes; ++j) brute.box_box += quoct::intersects(boxes[i], boxes[j]) ? 1 : 0;
            std::printf("%6d %14zu %12zu %10zu%s\n", t, found.circle_circle, found.circle_box, found.box_box,
                        brute == found ? "" : "  MISMATCH with brute force");
            failures += brute == found ? 0 : 1;
        }

        // Move everything and update the indexes in place.
        for (std::size_t i = 0; i < n_circles; ++i) {
            circle& c = circles[i];
            bounce_walls(c.center[0] - c.radius, c.center[0] + c.radius, circle_vel[i][0]);
            bounce_walls(c.center[1] - c.radius, c.center[1] + c.radius, circle_vel[i][1]);
            c.center[0] += dt * circle_vel[i][0];
            c.center[1] += dt * circle_vel[i][1];
            circle_index.move(static_cast<std::uint32_t>(i), c.center);
        }
        for (std::size_t i = 0; i < n_boxes; ++i) {
            rect& b = boxes[i];
            bounce_walls(b.lo[0], b.hi[0], box_vel[i][0]);
            bounce_walls(b.lo[1], b.hi[1], box_vel[i][1]);
            for (std::size_t k = 0; k < 2; ++k) {
                b.lo[k] += dt * box_vel[i][k];
                b.hi[k] += dt * box_vel[i][k];
            }
            box_index.update(static_cast<std::uint32_t>(i), b);
        }
        // move() re-centres a circle exactly; keep our copy identical to the index's.
        for (std::size_t i = 0; i < n_circles; ++i) circles[i] = circle_index.shape(static_cast<std::uint32_t>(i));
    }
    std::printf(failures ? "FAILED: broad phase differs from brute force\n" : "ok: broad phase matches brute force\n");
    return failures ? 1 : 0;
}
