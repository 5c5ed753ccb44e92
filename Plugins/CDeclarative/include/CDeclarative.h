/*
 * CDeclarative — a declarative C performer: no entry symbol, no JSON. Its manifest
 * (manifests/cdeclarative.json) names these functions; the host validates each plan, converts its
 * fields to C values and calls the plan's function through libffi (see "Declarative C performers" in
 * motion_plugin.h).
 *
 *   class Level
 *     create  level_create    destroy level_destroy    update level_update
 *     plan SetLevel(property: string, level: double, steps: int64, clamp: bool) -> level_set
 *       Sets a one-component property to `level`, clamped to [0, 1] when `clamp`, then quantized to
 *       `steps` equal steps when steps > 0 (round(level * steps) / steps). steps < 0 is rejected.
 *     plan Blink(property: string, period: double, count: int64) -> level_blink
 *       Shows (1) and hides (0) the property `count` times, each cycle `period` seconds (on for the
 *       first half), holding an is-active token; ends at 1 and releases the token.
 */
#ifndef CDECLARATIVE_H
#define CDECLARATIVE_H

#include <motion_plugin.h>

MOTION_PLUGIN_EXPORT void *level_create(const char *target_name, const motion_host_v1 *host,
                                        motion_host_context *ctx);
MOTION_PLUGIN_EXPORT void level_destroy(void *performer);
MOTION_PLUGIN_EXPORT void level_update(void *performer, double time, double delta);
MOTION_PLUGIN_EXPORT int32_t level_set(void *performer, const char *property, double level, int64_t steps, bool clamp);
MOTION_PLUGIN_EXPORT int32_t level_blink(void *performer, const char *property, double period, int64_t count);

#endif
