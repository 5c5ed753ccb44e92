/*
 * motion/plugin.h — the plugin's side: motion_plugin_v1, the functions the host calls.
 * Part of the motion plugin ABI; include <motion_plugin.h>, which includes every part and says how they fit.
 */
#ifndef MOTION_ABI_PLUGIN_H
#define MOTION_ABI_PLUGIN_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* The plugin's side                                                                              */
/* ============================================================================================== */

/**
 * The plugin's interface, returned by motion_plugin_entry. The struct, its plugin_id and its
 * functions must stay valid for the life of the process (a static const struct is the norm).
 * All fields are required (non-NULL).
 */
typedef struct motion_plugin_v1 {
    uint32_t struct_size; /**< sizeof(motion_plugin_v1) at the plugin's build. */
    uint32_t abi_version; /**< MOTION_ABI_VERSION the plugin was built against. */
    /** Reverse-DNS id, NUL-terminated; must equal the manifest's "id" (the host refuses a mismatch). */
    const char *plugin_id;

    /**
     * [scheduler-thread] Creates a performer of `class_name` (a "class" of the manifest) for the target
     * named `target_name`. Both strings are host-owned and valid only during the call (the target
     * name stays available through host->target_name(ctx)). ctx is host-owned and valid until
     * destroy_performer returns; keep it to call the host back. The host calls this at most once per
     * (scheduler, target, class), before the performer's first plan.
     * Returns the plugin-owned performer, or NULL with `error` filled: MOTION_ERR_UNKNOWN_CLASS for a
     * class the plugin does not know, MOTION_ERR_INTERNAL otherwise. (NULL without an error status is
     * reported by the host as MOTION_ERR_INTERNAL.)
     */
    motion_performer *(*create_performer)(const char *class_name, const char *target_name,
                                          motion_host_context *ctx, motion_error *error);

    /**
     * [scheduler-thread] Destroys a performer. Called once, when its scheduler goes away. The plugin
     * may still call the host with the performer's ctx during this call (e.g. to terminate its tokens);
     * after it returns, neither the performer pointer nor the ctx is used again by anyone. Tokens still
     * held are terminated by the host.
     */
    void (*destroy_performer)(motion_performer *performer);

    /**
     * [scheduler-thread] Hands the performer a plan. plan_json/length: UTF-8 `{"type":"Tween", ...}`,
     * host-owned, NOT NUL-terminated, valid only during the call. The host has already validated it
     * against the manifest (field types, ranges) and filled in defaults, and sends only plan types the
     * manifest lists for this performer's class. The performer may emit transactions and generate or
     * terminate tokens before returning.
     * Returns MOTION_OK, or an error with `error` filled: MOTION_ERR_INVALID_PLAN (the message names the
     * field), MOTION_ERR_UNKNOWN_PLAN_TYPE, MOTION_ERR_EMISSION_FAILED (an emission it needed failed),
     * MOTION_ERR_INTERNAL. A failed add leaves the performer usable.
     * A host of ABI 1.4 hands the plan by handle instead (motion_plan_handles_v1.add_plan, motion/plans.h) when
     * the plugin offers MOTION_EXTENSION_PLAN_HANDLES; add_plan must work all the same.
     */
    motion_status (*add_plan)(motion_performer *performer, const char *plan_json, size_t length,
                              motion_error *error);

    /**
     * [scheduler-thread] Hands the performer a named plan. name: non-empty, case-sensitive,
     * NUL-terminated, host-owned, valid during the call. plan_json as for add_plan. Re-adding a name
     * the performer holds is preceded by remove_named_plan for it (the runtime's add, remove, add), so
     * a performer never holds two plans of one name. Returns as add_plan.
     */
    motion_status (*add_named_plan)(motion_performer *performer, const char *name, const char *plan_json,
                                    size_t length, motion_error *error);

    /**
     * [scheduler-thread] Removes the named plan `name` (host-owned, valid during the call). The host
     * calls it only for a name this performer holds. What removal means is the performer's to define
     * (e.g. a spring stops steering towards that destination and releases its token). Returns
     * MOTION_OK, or an error with `error` filled (MOTION_ERR_INTERNAL).
     */
    motion_status (*remove_named_plan)(motion_performer *performer, const char *name, motion_error *error);

    /**
     * [thread-safe] Returns the plugin's implementation of an optional extension, or NULL if it has
     * none. extension_id: NUL-terminated, host-owned, valid during the call (MOTION_EXTENSION_*). The
     * returned struct is plugin-owned, begins with struct_size and must stay valid for the life of
     * the process. The host asks once per extension after the entry call, before creating performers.
     */
    const void *(*get_extension)(const char *extension_id);
} motion_plugin_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_ABI_PLUGIN_H */
