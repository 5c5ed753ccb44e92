// See include/tween_limit.h. Built with -ffp-contract=off so that no multiply-add is fused: the runtime's
// Swift does not fuse them either, and the results must be equal bit for bit.
#include "tween_limit.h"

#include <malloc.h>
#include <math.h>
#include <stdlib.h>

size_t ctweenlimit_heap_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

/* MotionAnimation.CubicBezier's coefficients: x(t) = ((ax t + bx) t + cx) t, and likewise for y. */
typedef struct bezier {
    double ax, bx, cx, ay, by, cy;
} bezier;

static bezier make_bezier(double x1, double y1, double x2, double y2) {
    bezier b;
    b.cx = 3 * x1;
    b.bx = 3 * (x2 - x1) - b.cx;
    b.ax = 1 - b.cx - b.bx;
    b.cy = 3 * y1;
    b.by = 3 * (y2 - y1) - b.cy;
    b.ay = 1 - b.cy - b.by;
    return b;
}

static bezier g_curves[4];
static int g_curves_ready;

static void prepare_curves(void) {
    if (g_curves_ready) return;
    g_curves[CTWEENLIMIT_EASE_IN] = make_bezier(0.42, 0, 1, 1);
    g_curves[CTWEENLIMIT_EASE_OUT] = make_bezier(0, 0, 0.58, 1);
    g_curves[CTWEENLIMIT_EASE_IN_OUT] = make_bezier(0.42, 0, 0.58, 1);
    g_curves_ready = 1;
}

static inline double sample_x(const bezier *b, double t) { return ((b->ax * t + b->bx) * t + b->cx) * t; }
static inline double sample_y(const bezier *b, double t) { return ((b->ay * t + b->by) * t + b->cy) * t; }
static inline double sample_dx(const bezier *b, double t) { return (3 * b->ax * t + 2 * b->bx) * t + b->cx; }

/* CubicBezier.solveT(forX:): Newton's method from t = x, then bisection. */
static double solve_t(const bezier *b, double x) {
    const double epsilon = 1e-9;
    double t = x;
    for (int i = 0; i < 8; i++) {
        double error = sample_x(b, t) - x;
        if (fabs(error) < epsilon) return t;
        double slope = sample_dx(b, t);
        if (fabs(slope) < 1e-6) break;
        t -= error / slope;
    }
    double low = 0, high = 1;
    t = x;
    for (int i = 0; i < 64; i++) {
        double value = sample_x(b, t);
        if (fabs(value - x) < epsilon) return t;
        if (value < x) low = t; else high = t;
        t = (low + high) / 2;
    }
    return t;
}

static inline double curve_value(uint8_t curve, double progress) {
    if (curve == CTWEENLIMIT_LINEAR) return progress > 0 ? (progress < 1 ? progress : 1) : 0;
    if (!(progress > 0)) return 0;
    if (!(progress < 1)) return 1;
    const bezier *b = &g_curves[curve];
    return sample_y(b, solve_t(b, progress));
}

struct ctweenlimit_tweens {
    size_t count, running;
    /* Per tween, in running order (a finished tween is swapped out): its index and its parameters. */
    uint32_t *order;
    double *from, *to, *duration, *delay, *start;
    uint8_t *curve;
    double *values; /* by tween index */
    uint32_t *changes;
};

size_t ctweenlimit_bytes(size_t count) {
    return sizeof(ctweenlimit_tweens) + count * (2 * sizeof(uint32_t) + 6 * sizeof(double) + sizeof(uint8_t));
}

ctweenlimit_tweens *ctweenlimit_create(size_t count) {
    prepare_curves();
    ctweenlimit_tweens *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->count = count;
    t->order = calloc(count, sizeof *t->order);
    t->from = calloc(count, sizeof *t->from);
    t->to = calloc(count, sizeof *t->to);
    t->duration = calloc(count, sizeof *t->duration);
    t->delay = calloc(count, sizeof *t->delay);
    t->start = calloc(count, sizeof *t->start);
    t->curve = calloc(count, sizeof *t->curve);
    t->values = calloc(count, sizeof *t->values);
    t->changes = calloc(count, sizeof *t->changes);
    if (!t->order || !t->from || !t->to || !t->duration || !t->delay || !t->start || !t->curve || !t->values ||
        !t->changes) {
        ctweenlimit_destroy(t);
        return NULL;
    }
    return t;
}

void ctweenlimit_destroy(ctweenlimit_tweens *t) {
    if (t == NULL) return;
    free(t->order);
    free(t->from);
    free(t->to);
    free(t->duration);
    free(t->delay);
    free(t->start);
    free(t->curve);
    free(t->values);
    free(t->changes);
    free(t);
}

void ctweenlimit_set(ctweenlimit_tweens *t, size_t index, double from, double to, double duration, double delay,
                     ctweenlimit_curve curve) {
    /* Slot = running position; tweens are set in index order, so slot i holds tween i to begin with. */
    size_t slot = t->running++;
    t->order[slot] = (uint32_t)index;
    t->from[slot] = from;
    t->to[slot] = to;
    t->duration[slot] = duration;
    t->delay[slot] = delay;
    t->start[slot] = NAN; /* set at its first frame */
    t->curve[slot] = (uint8_t)curve;
}

size_t ctweenlimit_frame(ctweenlimit_tweens *t, double time) {
    size_t changed = 0;
    size_t slot = 0;
    while (slot < t->running) {
        if (isnan(t->start[slot])) t->start[slot] = time;
        double elapsed = time - t->start[slot] - t->delay[slot];
        if (elapsed < 0) {
            slot++;
            continue;
        }
        double duration = t->duration[slot];
        double progress = duration > 0 ? elapsed / duration : 1;
        double fraction = curve_value(t->curve[slot], progress);
        double from = t->from[slot], to = t->to[slot];
        double value = fraction == 1 ? to : from + (to - from) * fraction;
        uint32_t index = t->order[slot];
        if (value != t->values[index]) {
            t->values[index] = value;
            t->changes[changed++] = index;
        }
        if (progress >= 1) {
            /* Finished: the last running slot takes its place (it runs next, in this same frame). */
            size_t last = --t->running;
            t->order[slot] = t->order[last];
            t->from[slot] = t->from[last];
            t->to[slot] = t->to[last];
            t->duration[slot] = t->duration[last];
            t->delay[slot] = t->delay[last];
            t->start[slot] = t->start[last];
            t->curve[slot] = t->curve[last];
        } else {
            slot++;
        }
    }
    return changed;
}

const double *ctweenlimit_values(const ctweenlimit_tweens *t) { return t->values; }
const uint32_t *ctweenlimit_changes(const ctweenlimit_tweens *t) { return t->changes; }
size_t ctweenlimit_running(const ctweenlimit_tweens *t) { return t->running; }
