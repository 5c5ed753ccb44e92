// The hand-written limit for the frame tick of running Tweens (issue 12): the work of TweenKit's Tween,
// done in plain C over a structure of arrays, as fast as this machine does it. motion-benchmark prints the
// runtime's in-process and plugin sides beside it; MotionBenchmarkTests checks that it gives the runtime's
// results bit for bit (same start and delay, progress, cubic-bezier solve, interpolation, and a change only
// when a value changes).
#ifndef TWEEN_LIMIT_H
#define TWEEN_LIMIT_H

#include <stddef.h>
#include <stdint.h>

/// Timing curves, as MotionAnimation.TimingCurve names them.
typedef enum ctweenlimit_curve {
    CTWEENLIMIT_LINEAR = 0,
    CTWEENLIMIT_EASE_IN = 1,
    CTWEENLIMIT_EASE_OUT = 2,
    CTWEENLIMIT_EASE_IN_OUT = 3,
} ctweenlimit_curve;

/// `count` one-component tweens in a structure of arrays. Allocate with ctweenlimit_create, set each
/// tween with ctweenlimit_set, free with ctweenlimit_destroy.
typedef struct ctweenlimit_tweens ctweenlimit_tweens;

/// Room for `count` tweens and their property values (all 0); NULL when out of memory.
ctweenlimit_tweens *ctweenlimit_create(size_t count);
void ctweenlimit_destroy(ctweenlimit_tweens *tweens);

/// Tween `index` from `from` to `to` over `duration` s after `delay` s, starting at its first frame
/// (TweenKit's Tween with an explicit `from`). It runs until its progress reaches 1.
void ctweenlimit_set(ctweenlimit_tweens *tweens, size_t index, double from, double to, double duration, double delay,
                     ctweenlimit_curve curve);

/// One frame at `time` (s): every running tween writes its value; a tween whose progress reaches 1 stops.
/// Returns the number of values that changed; their indexes are in ctweenlimit_changes.
size_t ctweenlimit_frame(ctweenlimit_tweens *tweens, double time);

/// The property values (one per tween), and the indexes that changed in the last frame.
const double *ctweenlimit_values(const ctweenlimit_tweens *tweens);
const uint32_t *ctweenlimit_changes(const ctweenlimit_tweens *tweens);
/// How many tweens are still running.
size_t ctweenlimit_running(const ctweenlimit_tweens *tweens);
/// Bytes allocated for `count` tweens (for the per-performer memory column).
size_t ctweenlimit_bytes(size_t count);
/// Bytes the process's heap hands out now (mallinfo2's uordblks + hblkhd), for the benchmark's memory breakdown:
/// here because Swift's Glibc module does not import <malloc.h>.
size_t ctweenlimit_heap_bytes(void);

#endif
