/*
 * motion/log.h — the host's log extension (MOTION_HOST_EXTENSION_LOG): a log that names its caller.
 * Part of the motion plugin ABI; include <motion_plugin.h>, which includes every part and says how they fit.
 */
#ifndef MOTION_ABI_LOG_H
#define MOTION_ABI_LOG_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* Host extension: log                                                                            */
/* ============================================================================================== */

/** Id of the host's log extension; motion_host_v1.get_extension returns a `const motion_log_v1 *`. */
#define MOTION_HOST_EXTENSION_LOG "motion.log/1"

/** A log that names its caller: the host knows which plugin, performer class and target a line is from. */
typedef struct motion_log_v1 {
    uint32_t struct_size; /**< sizeof(motion_log_v1) at the host's build. */
    /**
     * [thread-safe] Logs one line for the performer of `ctx`, as motion_host_v1.log does, except that the host
     * attributes it from `ctx`, whatever thread calls and whatever the text says: the line reaches the user as
     * `<plugin id> (<manifest>) (<target>): <message>`, and goes where that plugin's host sends its lines.
     * Callable after the performer was destroyed (a plugin thread finishing late); the line is then still
     * attributed, by this host for as long as it has not given the destroyed performer's storage to a later
     * performer (it takes the storage of the performers destroyed longest ago first); a line that comes later
     * is logged as motion_host_v1.log logs it. ctx NULL: as motion_host_v1.log.
     *   level: a MOTION_LOG_* level.
     *   message: NUL-terminated UTF-8, caller-owned, read during the call; control characters are shown escaped.
     */
    void (*log)(motion_host_context *ctx, int32_t level, const char *message);
} motion_log_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_ABI_LOG_H */
