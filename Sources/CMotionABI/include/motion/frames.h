/*
 * motion/frames.h — the per-frame update extension (MOTION_EXTENSION_FRAMES).
 * Part of the motion plugin ABI; include <motion_plugin.h>, which includes every part and says how they fit.
 */
#ifndef MOTION_ABI_FRAMES_H
#define MOTION_ABI_FRAMES_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* Extension: frames                                                                              */
/* ============================================================================================== */

/** Id of the per-frame update extension; get_extension returns a `const motion_frames_v1 *`. */
#define MOTION_EXTENSION_FRAMES "motion.frames/1"

/** One frame of the host's frame clock. Host-owned, valid only during the update call. */
typedef struct motion_frame {
    uint32_t struct_size; /**< sizeof(motion_frame) at the host's build. */
    uint64_t index;       /**< Frame number, 0 for the clock's first frame, +1 per frame. */
    double time;          /**< Seconds since the clock started (the scene's time). */
    double delta;         /**< Seconds since the previous frame (0 on frame 0); >= 0. */
} motion_frame;

/**
 * The frames extension, plugin-owned, valid for the life of the process.
 *
 * The host updates performers in one order (the order in which they first took a token). update is
 * required; update_many (ABI 1.1) is optional and, when present, is called instead of update for each
 * run of the plugin's performers that come one after another in that order (a run may be of one), which
 * in the common case is one call per plugin per frame instead of one per performer. A plugin that sets
 * update_many must give it exactly the effect of calling update for each performer in turn.
 */
typedef struct motion_frames_v1 {
    uint32_t struct_size; /**< sizeof(motion_frames_v1) at the plugin's build. */
    /**
     * [scheduler-thread] Called once per frame for each performer of the plugin that holds at least
     * one is-active token at the start of that frame. The performer typically sets properties and,
     * when done, terminates its token (it then receives no more frames until it takes another).
     * performer: as returned by create_performer. frame: host-owned, valid during the call only.
     */
    void (*update)(motion_performer *performer, const motion_frame *frame);
    /**
     * [scheduler-thread] Since ABI 1.1; optional: NULL (or a struct_size that does not cover it) makes
     * the host call update per performer, exactly as a 1.0 host does.
     * Updates `count` (>= 1) performers for one frame, in the order given, as `count` calls of update
     * would. performers: a host-owned array of `count` performers of this plugin, each holding at least
     * one is-active token when the call begins; valid during the call only (do not keep the array; the
     * performers in it are yours as always). frame: as for update.
     * Inside the call each performer may set properties, emit transactions, and take or end tokens exactly
     * as in update; a performer whose last token ends during the call (even by another performer's doing)
     * is still updated in this call. A plugin that queues property writes for set_properties must hand
     * them over as set_properties says (before its other host calls and before returning).
     */
    void (*update_many)(motion_performer *const *performers, size_t count, const motion_frame *frame);
} motion_frames_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_ABI_FRAMES_H */
