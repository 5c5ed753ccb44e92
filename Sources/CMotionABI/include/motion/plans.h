/*
 * motion/plans.h — plans handed over by handle (MOTION_HOST_EXTENSION_PLANS, MOTION_EXTENSION_PLAN_HANDLES): the
 * host keeps a plan it passes as the fields it already holds, and the plugin reads them in one call, by a layout
 * it resolved once per performer class, instead of the host writing JSON and the plugin reading it back.
 * Part of the motion plugin ABI; include <motion_plugin.h>, which includes every part and says how they fit.
 */
#ifndef MOTION_ABI_PLANS_H
#define MOTION_ABI_PLANS_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* Plans by handle (since ABI 1.4)                                                                */
/* ============================================================================================== */

/*
 * How it fits together. A host of ABI 1.4 offers MOTION_HOST_EXTENSION_PLANS (motion_host_v1.get_extension). A
 * plugin that reads plans through it offers MOTION_EXTENSION_PLAN_HANDLES (motion_plugin_v1.get_extension). When
 * both are there, the host hands a plan over with motion_plan_handles_v1.add_plan / add_named_plan instead of
 * motion_plugin_v1.add_plan / add_named_plan, passing a `const motion_plan *` instead of JSON: exactly the same
 * plan (validated against the manifest, defaults filled in), under the same rules (thread, order, errors,
 * emissions, tokens), and the host writes no JSON for it unless the plugin asks (motion_plans_v1.json).
 * Either side without it keeps to the JSON calls: a 1.3 host answers NULL for the extension and calls add_plan;
 * a plugin that does not offer MOTION_EXTENSION_PLAN_HANDLES (or offers one whose struct_size does not cover
 * add_named_plan) gets add_plan. A plugin offering it must still implement add_plan and add_named_plan (another
 * host, or the sandbox process, calls those).
 */

/** Id of the host's plans extension; motion_host_v1.get_extension returns a `const motion_plans_v1 *`, or NULL
 *  from a host older than ABI 1.4. */
#define MOTION_HOST_EXTENSION_PLANS "motion.plans/1"

/** Id of the plugin's plan-handles extension; motion_plugin_v1.get_extension returns a
 *  `const motion_plan_handles_v1 *`, or NULL when the plugin takes plans only as JSON. */
#define MOTION_EXTENSION_PLAN_HANDLES "motion.plan-handles/1"

/**
 * A plan the host is handing over, host-owned and opaque: valid only during the add_plan / add_named_plan call
 * that passes it, and only on that call's thread (the scheduler thread). Never dereference it; pass it back to
 * motion_plans_v1's functions.
 */
typedef struct motion_plan motion_plan;

/**
 * A list of field names resolved by the host once (motion_plans_v1.layout), to read many plans by: an index
 * (>= 0), stable for the life of the process. A negative value where a layout is expected is a motion_status.
 */
typedef int32_t motion_plan_layout;

/** The most names one layout may have. */
#define MOTION_PLAN_LAYOUT_MAX_FIELDS 64u
/** The most layouts a host makes in one process (one per performer class is the norm); further calls to
 *  motion_plans_v1.layout answer MOTION_ERR_TOO_LARGE. */
#define MOTION_PLAN_LAYOUT_MAX_COUNT 4096u

/** What a motion_plan_field holds (motion_plan_field.kind). A newer minor may add kinds; read an unknown one as
 *  MOTION_PLAN_FIELD_OTHER. */
#define MOTION_PLAN_FIELD_ABSENT 0  /**< The plan has no such field. */
#define MOTION_PLAN_FIELD_NULL 1    /**< JSON null. */
#define MOTION_PLAN_FIELD_BOOLEAN 2 /**< values[0] is 1 (true) or 0 (false). */
#define MOTION_PLAN_FIELD_NUMBER 3  /**< A number: values[0] (finite), count 1. */
#define MOTION_PLAN_FIELD_STRING 4  /**< A string: text/length. */
/** An array of 0...MOTION_PROPERTY_MAX_COMPONENTS numbers (a vector, e.g. a Tween's "to"): values[0..count). */
#define MOTION_PLAN_FIELD_NUMBERS 5
/** Anything else (an object, an array of other values or of more numbers): read it with motion_plans_v1.json. */
#define MOTION_PLAN_FIELD_OTHER 6

/** One field of a plan as motion_plans_v1.read gives it. Caller-owned; the host fills every member. */
typedef struct motion_plan_field {
    int32_t kind;   /**< MOTION_PLAN_FIELD_*. */
    uint32_t count; /**< NUMBER: 1; NUMBERS: components in values; otherwise 0. */
    double values[MOTION_PROPERTY_MAX_COMPONENTS]; /**< NUMBER, NUMBERS, BOOLEAN as above; the rest is 0. */
    /** STRING: its UTF-8 bytes, NOT NUL-terminated, host-owned, valid as long as the motion_plan is; else NULL. */
    const char *text;
    size_t length; /**< STRING: the byte length of text; otherwise 0. */
} motion_plan_field;

/** The host's plans extension. Every function checks its arguments and never trusts a handle it did not give. */
typedef struct motion_plans_v1 {
    uint32_t struct_size; /**< sizeof(motion_plans_v1) at the host's build. */

    /**
     * [thread-safe] Resolves field names once, for read: returns a layout (>= 0) that stands for them in this
     * order. names: `count` NUL-terminated UTF-8 names, caller-owned, read during the call (the host copies
     * them); a name is a top-level member of the plan, matched byte for byte, and "type" stands for the plan's
     * type (a STRING).
     * Resolving the same names again may give another layout; both work.
     * Returns, as a negative layout: MOTION_ERR_INVALID_ARGUMENT (names NULL, a name NULL or empty, count 0 or
     * over MOTION_PLAN_LAYOUT_MAX_FIELDS), MOTION_ERR_TOO_LARGE (MOTION_PLAN_LAYOUT_MAX_COUNT layouts made).
     */
    motion_plan_layout (*layout)(const char *const *names, size_t count);

    /**
     * [scheduler-thread, during the add call that passed `plan`] Reads the plan's fields named by `layout`
     * into fields[0..count): fields[i] is the layout's name i. `count` may be less than the layout's names
     * (the first `count` are read).
     * Returns MOTION_OK (an absent field is MOTION_PLAN_FIELD_ABSENT, not an error), or, with nothing written,
     * MOTION_ERR_INVALID_ARGUMENT: fields NULL; a layout this host did not make; count 0 or more than the
     * layout's names; a plan that is not being handed over on this thread right now (also one whose call has
     * returned).
     */
    motion_status (*read)(const motion_plan *plan, motion_plan_layout layout, motion_plan_field *fields, size_t count);

    /**
     * [scheduler-thread, during the add call that passed `plan`] The whole plan as the JSON add_plan would
     * have received (`{"type":...,fields}`), copied into buffer (caller-owned) and NUL-terminated: for what
     * read cannot give (a nested object) or a plan type the plugin reads from JSON. *length_out (always
     * written when not NULL) is the JSON's byte length without the NUL.
     * Returns MOTION_OK; MOTION_ERR_BUFFER_TOO_SMALL when *length_out + 1 > capacity (nothing useful is
     * copied: call again with a larger buffer); MOTION_ERR_INVALID_ARGUMENT for a plan not in flight (as read)
     * or buffer NULL with capacity > 0.
     * After MOTION_OK the filled buffer stands for the plan in motion_host_v1's plan-field functions (plan_number
     * ...) until the add call returns, as add_plan's JSON does: they answer without parsing it (so do not write
     * other JSON into that buffer meanwhile).
     */
    motion_status (*json)(const motion_plan *plan, char *buffer, size_t capacity, size_t *length_out);
} motion_plans_v1;

/** The plugin's plan-handles extension: add_plan and add_named_plan taking a plan by handle. */
typedef struct motion_plan_handles_v1 {
    uint32_t struct_size; /**< sizeof(motion_plan_handles_v1) at the plugin's build. */

    /** [scheduler-thread] motion_plugin_v1.add_plan with the plan by handle (read it with motion_plans_v1);
     *  the same rules and results. plan: host-owned, valid during the call. */
    motion_status (*add_plan)(motion_performer *performer, const motion_plan *plan, motion_error *error);

    /** [scheduler-thread] motion_plugin_v1.add_named_plan with the plan by handle; the same rules and results. */
    motion_status (*add_named_plan)(motion_performer *performer, const char *name, const motion_plan *plan,
                                    motion_error *error);
} motion_plan_handles_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_ABI_PLANS_H */
